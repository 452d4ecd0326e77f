/**
 * The dashboard's addresses that the API's answers point a person to (joined to the public URL by publicUrlOf): a
 * browser opens them, where the API operations they replace (POST /api-keys, the checkout, the approval) need a
 * program. The dashboard's page table (src/dashboard/pages/index.ts) answers each; test/browser/dashboard checks
 * that they open the pages named here.
 */

/** insufficient_scope's upgrade_action: the key-creation page, filled in for a read+write key. */
export const REISSUE_KEY_PAGE = "/#/keys/new?scopes=read,write";

/** plan_upgrade_required's upgrade_action: the plan page (plans are set by the administrator on this server). */
export const PLAN_PAGE = "/#/plan";

/** The device authorization's verification_uri (RFC 8628 §3.2): the approval form (routes/dashboard.ts). */
export const DEVICE_PAGE = "/device";
