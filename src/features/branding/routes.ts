import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { NotFoundError, parseInput, PayloadTooLargeError, ValidationError } from "../../http/errors";
import { currentUser, requireActor } from "../../http/tenant";
import { auditRequest } from "../audit/service";
import { brandingSchema, LOGO_MAX_BYTES } from "./contract";
import { deleteLogo, getBranding, logoBySlug, publicBranding, saveBranding, saveLogo, verifyHostname } from "./service";

/**
 * White-label branding: read by every member, changed by admins and owners of an MSP (Scale
 * plan or billing off). Signed out, the branding of the MSP whose custom hostname the request
 * came to (name, logo and colour), or the default.
 */
export function brandingRoutes(deps: AppDeps) {
  const signedOutBranding = async (request: Request) => {
    await deps.limiter.hit("branding-public", clientAddress(deps, request), 120, 60);
    return publicBranding(deps, undefined, request.headers.get("host"));
  };
  return new Elysia({ name: "branding" })
    .use(access(deps))
    .get(
      "/api/branding",
      async ({ request }) => {
        // no session and no API token: the signed-out pages' branding; otherwise exactly the organisation's read access
        if (!request.headers.has("authorization") && !(await currentUser(deps, request))) return signedOutBranding(request);
        return getBranding({ ...deps, actor: await requireActor(deps, request, "read") });
      },
      { public: true },
    )
    .put(
      "/api/branding",
      async ({ ctx, body, request }) => {
        const changed = await saveBranding(ctx, parseInput(brandingSchema, body));
        if (Object.keys(changed).length) await auditRequest(ctx, request, "settings.changed", { data: { branding: changed } });
        return getBranding(ctx);
      },
      { org: "settings:manage" },
    )
    // checks the custom hostname's DNS now: only a verified hostname is used
    .post(
      "/api/branding/hostname/verify",
      async ({ ctx, request }) => {
        await ctx.limiter.hit("branding-verify", ctx.actor.orgId, 30, 600, "Too many checks of the hostname. Please wait a few minutes and verify again.");
        const { verification, before } = await verifyHostname(ctx);
        if (verification.status !== before) await auditRequest(ctx, request, "settings.changed", { data: { branding: { customHostnameStatus: verification.status } } });
        return verification;
      },
      { org: "settings:manage" },
    )
    .put(
      "/api/branding/logo",
      async ({ ctx, request }) => {
        const length = Number(request.headers.get("content-length") ?? 0);
        if (length > LOGO_MAX_BYTES + 16 * 1024) throw new PayloadTooLargeError(`The logo must be at most ${LOGO_MAX_BYTES / 1024} KB.`);
        let form: FormData;
        try {
          form = await request.formData();
        } catch {
          throw new ValidationError('Send the logo as multipart/form-data (field name "logo").', { logo: "Choose a PNG or JPEG image" });
        }
        const file = form.get("logo");
        if (!(file instanceof File)) throw new ValidationError('Send the logo as multipart/form-data (field name "logo").', { logo: "Choose a PNG or JPEG image" });
        await saveLogo(ctx, new Uint8Array(await file.arrayBuffer()));
        await auditRequest(ctx, request, "settings.changed", { data: { branding: { logo: "uploaded" } } });
        return getBranding(ctx);
      },
      { parse: "none", org: "settings:manage" },
    )
    .delete(
      "/api/branding/logo",
      async ({ ctx, request }) => {
        if (await deleteLogo(ctx)) await auditRequest(ctx, request, "settings.changed", { data: { branding: { logo: "removed" } } });
        return getBranding(ctx);
      },
      { org: "settings:manage" },
    )
    // the sign-in page through an MSP's link: name, logo and colour only
    // the sign-in page through an MSP's link (?brand=<slug>) or on its custom hostname: name, logo and colour only
    .get(
      "/api/branding/public",
      async ({ query, request }) => {
        if (typeof query.brand !== "string" || !query.brand) return signedOutBranding(request);
        await deps.limiter.hit("branding-public", clientAddress(deps, request), 120, 60);
        return publicBranding(deps, query.brand);
      },
      { public: true },
    )
    .get(
      "/api/branding/:slug/logo",
      async ({ ctx, params }) => {
        const logo = await logoBySlug(ctx, params.slug);
        if (!logo) throw new NotFoundError("No logo.");
        return new Response(logo.bytes, {
          headers: {
            "content-type": logo.type,
            "x-content-type-options": "nosniff",
            "content-security-policy": "default-src 'none'; sandbox",
            "cache-control": "public, max-age=300",
          },
        });
      },
      { public: true },
    );
}
