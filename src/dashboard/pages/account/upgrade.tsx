import { Page } from "../../ui/page.js";

/** Shown instead of the key pages to an account whose plan has no API access (starter, pro). */
export function UpgradePrompt({ plan }: { plan: string }) {
  return (
    <Page title="API keys">
      <p>To be written ({plan}).</p>
    </Page>
  );
}
