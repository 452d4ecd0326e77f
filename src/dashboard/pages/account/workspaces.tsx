import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function WorkspacesPage(_props: PageProps) {
  return (
    <Page title="Workspaces">
      <p>To be written.</p>
    </Page>
  );
}
