import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { parseInput, PayloadTooLargeError } from "../../http/errors";
import { CONTACT_RATE_LIMIT, contactMessageSchema, type ContactCreated } from "./contract";
import { createContactSubmission } from "./service";

/** A contact message is a few kilobytes at most; anything far larger is refused before parsing. */
export const MAX_CONTACT_BODY_BYTES = 64 * 1024;

/** POST /api/contact: the public contact form (dialog and /contact). */
export function contactRoutes(deps: AppDeps) {
  return new Elysia({ name: "contact" }).use(access(deps)).post(
    "/api/contact",
    async ({ ctx, body, request, set }): Promise<ContactCreated> => {
      if (Number(request.headers.get("content-length") ?? 0) > MAX_CONTACT_BODY_BYTES)
        throw new PayloadTooLargeError("The message is too large. Please shorten it and try again.");
      const message = parseInput(contactMessageSchema, body);
      await ctx.limiter.hit(
        "contact",
        clientAddress(ctx, request),
        CONTACT_RATE_LIMIT.limit,
        CONTACT_RATE_LIMIT.windowSeconds,
        "You have sent several messages in a short time. Please wait a few minutes before sending another, or email us directly.",
      );
      const id = await createContactSubmission(ctx, message);
      set.status = 201;
      return { success: true, id };
    },
    { public: true },
  );
}
