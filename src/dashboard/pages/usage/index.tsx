import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function UsagePage(_props: PageProps) {
  return (
    <Page title="Usage">
      <p>To be written.</p>
    </Page>
  );
}
