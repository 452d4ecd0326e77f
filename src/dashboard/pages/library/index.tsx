import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function LibraryPage(_props: PageProps) {
  return (
    <Page title="Library">
      <p>To be written.</p>
    </Page>
  );
}
