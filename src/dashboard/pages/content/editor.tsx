import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function EditorPage(_props: PageProps) {
  return (
    <Page title="Editor">
      <p>To be written.</p>
    </Page>
  );
}
