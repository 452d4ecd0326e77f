import type { PageProps } from "../../router.js";
import { Page } from "../../ui/page.js";

export function KeysPage(_props: PageProps) {
  return (
    <Page title="API keys">
      <p>To be written.</p>
    </Page>
  );
}

export function NewKeyPage(_props: PageProps) {
  return (
    <Page title="New API key">
      <p>To be written.</p>
    </Page>
  );
}
