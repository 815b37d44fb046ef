/**
 * What the audit log records, by action name. The names are stable (API filters and stored rows
 * use them); the labels are what the Settings screen shows.
 */
export const AUDIT_ACTIONS = {
  "auth.sign_in": "Signed in",
  "auth.sign_in_failed": "Failed sign-in",
  "auth.link_sign_in": "Sign-in link used",
  "auth.two_factor_enabled": "Two-factor sign-in turned on",
  "auth.two_factor_disabled": "Two-factor sign-in turned off",
  "auth.unproved_access_removed": "Access made before the email was confirmed removed",
  "member.invited": "Member invited",
  "member.invitation_revoked": "Invitation revoked",
  "member.joined": "Member joined",
  "member.removed": "Member removed",
  "member.role_changed": "Member role changed",
  "domain.added": "Domain added",
  "domain.removed": "Domain removed",
  "client.created": "Client organization created",
  "client.report_changed": "Client report contacts changed",
  "settings.changed": "Settings changed",
  "retention.changed": "Retention changed",
  "retention.purged": "Old data deleted",
  "token.created": "API token created",
  "token.revoked": "API token revoked",
  "token.held_back": "API token held back (its creator has no two-factor sign-in)",
  "sso.configured": "Single sign-on configured",
  "mailbox.changed": "Report mailbox changed",
  "mailbox.removed": "Report mailbox removed",
  "data.exported": "Data exported",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as AuditAction[];
