import { Link, Navigate } from "react-router";
import { PagePlaceholder } from "../../components/PagePlaceholder";
import { isSignedIn, useMe } from "../../lib/auth";
import { TwoFactorSection } from "../settings/TwoFactorSection";

/** /app/two-factor: where a member is sent when their organisation requires two-factor sign-in and they have not turned it on. */
export default function TwoFactorEnrolPage() {
  const me = useMe();
  const signedIn = isSignedIn(me.data) ? me.data : null;
  const twoFactor = signedIn?.twoFactor;
  return (
    <PagePlaceholder title="Turn on two-factor sign-in">
      <div className="mt-6 grid max-w-3xl grid-cols-1 gap-6">
        {twoFactor?.required && !twoFactor.enabled && (
          <div className="alert alert-warning text-sm" role="status">
            {signedIn?.currentOrg?.name ?? "Your organization"} requires two-factor sign-in. Turn it on to continue.
          </div>
        )}
        <TwoFactorSection enrolOnly />
        {twoFactor?.enabled && (
          <Link to="/app/dashboard" className="btn btn-primary self-start">
            Continue to the dashboard
          </Link>
        )}
        {!twoFactor && me.isSuccess && !signedIn && <Navigate to="/login" replace />}
      </div>
    </PagePlaceholder>
  );
}
