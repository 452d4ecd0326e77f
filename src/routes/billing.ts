/** Billing mutations (spec §4.11): sessions only; plans are set by the administrator on this server. */
import * as v from "valibot";
import { ApiError } from "../domain/errors.js";
import { route } from "../http/route.js";
import { named } from "../http/schemas.js";
import { AUTH_ERRORS, CONFLICT, SESSION_ONLY } from "./common.js";

const OPERATIONS = [
  ["checkout-session", "createCheckoutSession", "Start a checkout", "buy or change a plan"],
  ["portal-session", "createPortalSession", "Open the billing portal", "see invoices and payment details"],
  ["cancel-subscription", "cancelSubscription", "Cancel the subscription", "end a paid plan"],
  ["refund-request", "requestRefund", "Request a refund", "ask for money back"],
] as const;

/** The body a billing operation takes: anything, as none is read. */
const BillingBody = named(
  "BillingRequest",
  v.pipe(v.optional(v.looseObject({})), v.description("Not read: any JSON object, or no body.")),
);

/** The billing operations of a hosted service: each answers 409 billing_managed_locally, as plans are set here by the administrator. */
export const billingRoutes = OPERATIONS.map(([path, operationId, summary, purpose]) =>
  route({
    method: "POST",
    path: `/api/v1/billing/${path}`,
    operationId,
    summary: `${summary} (web session only; answers 409 billing_managed_locally)`,
    description:
      `Where a hosted service would let a customer ${purpose}. On this server plans are set by its administrator ` +
      "(`content-service accounts set-plan`, or PUT /api/v1/admin/accounts/{id}), so it changes nothing and always " +
      "answers 409 billing_managed_locally. " +
      SESSION_ONLY,
    tag: "Billing",
    stability: "beta",
    access: "session",
    planExempt: true,
    body: BillingBody,
    bodyExamples: { empty: {} },
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
