// OWNED BY the accounts/admin work (issue 4). The landing page opens it from its Sign In button.
// Contract: <AdminLoginDialog open={bool} onOpenChange={(open) => …} />
export function AdminLoginDialog(_props: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return null;
}
