import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function PlanPage(_props: PageProps) {
  return (
    <Page title="Plan">
      <p>To be written.</p>
    </Page>
  );
}
