import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function ContentsPage(_props: PageProps) {
  return (
    <Page title="Content">
      <p>To be written.</p>
    </Page>
  );
}
