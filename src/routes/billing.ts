/** Billing mutations (spec §4.11): sessions only; plans are set by the administrator on this server. */
import * as v from "valibot";
import { ApiError } from "../http/errors.js";
import { route } from "../http/route.js";
import { AUTH_ERRORS, CONFLICT } from "./common.js";

const OPERATIONS = [
  ["checkout-session", "createCheckoutSession", "Start a checkout"],
  ["portal-session", "createPortalSession", "Open the billing portal"],
  ["cancel-subscription", "cancelSubscription", "Cancel the subscription"],
  ["refund-request", "requestRefund", "Request a refund"],
] as const;

export const billingRoutes = OPERATIONS.map(([path, operationId, summary]) =>
  route({
    method: "POST",
    path: `/api/v1/billing/${path}`,
    operationId,
    summary: `${summary} (web session only; answers 409 billing_managed_locally)`,
    tag: "Billing",
    stability: "beta",
    access: "session",
    planExempt: true,
    body: v.optional(v.looseObject({})),
    responses: {
      ...AUTH_ERRORS,
      ...CONFLICT("Billing is managed by this server's administrator (billing_managed_locally)."),
    },
    handler() {
      throw new ApiError(
        "billing_managed_locally",
        "Billing is managed by this server's administrator: plans are set with `content-service accounts set-plan`.",
        { managed_by: "administrator" },
      );
    },
  }),
);
