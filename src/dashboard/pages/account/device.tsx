import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function DevicePage(_props: PageProps) {
  return (
    <Page title="Approve a command-line sign-in">
      <p>To be written.</p>
    </Page>
  );
}
