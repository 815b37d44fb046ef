import { AlertCircle } from "lucide-react";

/** SPEC §2: any other path. */
export default function NotFoundPage() {
  return (
    <div className="flex min-h-[60vh] w-full items-center justify-center">
      <div className="card mx-4 w-full max-w-md border border-base-300 bg-base-100 shadow-sm">
        <div className="card-body">
          <div className="mb-2 flex gap-2">
            <AlertCircle className="h-8 w-8 text-error" aria-hidden />
            <h1 className="text-2xl font-bold">404 Page Not Found</h1>
          </div>
          <p className="text-sm opacity-70">Did you forget to add the page to the router?</p>
        </div>
      </div>
    </div>
  );
}
