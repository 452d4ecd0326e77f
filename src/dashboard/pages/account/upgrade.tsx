/** Shown instead of every page but the plan, the approval and Admin to an account whose plan has no API access. */
import { href } from "../../router.js";
import { Page } from "../../ui/page.js";
import "./account.css";
import { HowPlansChange, PLAN_TABLE } from "./plan-table.js";

const API_PLANS = PLAN_TABLE.filter((p) => p.apiAccess).map((p) => p.plan);

/** The upgrade prompt (starter, pro: DESIGN §5): what the plan lacks, and how plans change on this server. */
export function UpgradePrompt({ plan }: { plan: string }) {
  return (
    <Page title="Upgrade the plan">
      <div class="panel account-panel">
        <h2>API keys need a Business or Agency plan</h2>
        <p>
          This account is on the <strong>{plan}</strong> plan, which has no API access: its keys would be refused, and
          the content, library and usage pages read through the API. They come with the {API_PLANS.join(" and ")} plans.
        </p>
        <HowPlansChange />
        <p>
          <a href={href("/plan")}>See what each plan allows</a>
        </p>
      </div>
    </Page>
  );
}
