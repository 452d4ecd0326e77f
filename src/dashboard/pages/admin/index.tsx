import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function AdminPage(_props: PageProps) {
  return (
    <Page title="Admin">
      <p>To be written.</p>
    </Page>
  );
}
