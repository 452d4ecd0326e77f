/**
 * The editor: #/contents/new generates a new content (generate-form.tsx); #/contents/:id opens one to review and
 * edit its title and text, save (PATCH), finalize with the time spent editing (edit-time.ts), then watch what
 * learning took from the edit (learning.tsx), publish, and see its versions, conversions and score.
 */
import { useEffect, useState } from "preact/hooks";
import { useAccount } from "../../account.js";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import type { PageProps } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { dateTime } from "../../ui/format.js";
import { Busy, Page } from "../../ui/page.js";
import { useAction, useAsync } from "../../ui/use-async.js";
import { Conversions } from "./conversions.js";
import { useEditTime } from "./edit-time.js";
import { GenerateForm } from "./generate-form.js";
import { LearningJob } from "./learning.js";
import { StatusBadge } from "./list.js";
import { Score } from "./score.js";
import { Versions } from "./versions.js";
import { Warnings } from "./warnings.js";
import "./content.css";

type Content = components["schemas"]["Content"];

/** The editor of one content (`#/contents/:id`), or the generation form for a new one (`#/contents/new`). */
export function EditorPage({ params, query }: PageProps) {
  if (!params.id) return <GenerateForm />;
  const warnings = query.get("warnings");
  return <ContentEditor contentId={Number(params.id)} warnings={warnings ? warnings.split("\n") : []} />;
}

/** The saving actions of the body: save, finalize (generated only), publish (finalized only). */
function useBodyActions(content: Content, draft: { title: string; text: string }, onSaved: (c: Content) => void) {
  const edit = useEditTime();
  const [jobId, setJobId] = useState<string | null>(null);
  const path = { contentId: content.content_id };
  const save = useAction(async () => {
    // A finalized piece keeps its text: only its title may change.
    const body = content.status === "finalized" ? { title: draft.title } : { title: draft.title, content: draft.text };
    onSaved(await ok(api.PATCH("/api/v1/contents/{contentId}", { params: { path }, body })));
  });
  const finalize = useAction(async () => {
    if (draft.title !== content.title)
      await ok(api.PATCH("/api/v1/contents/{contentId}", { params: { path }, body: { title: draft.title } }));
    const done = await ok(
      api.POST("/api/v1/finalizeContent", {
        body: { content_id: content.content_id, finalized_content: draft.text, edit_seconds: edit.seconds() },
      }),
    );
    setJobId(done.learning_job_id);
    onSaved(await ok(api.GET("/api/v1/contents/{contentId}", { params: { path } })));
  });
  const publish = useAction(async () => {
    onSaved(await ok(api.POST("/api/v1/contents/{contentId}/publication", { params: { path }, body: {} })));
  });
  return { edit, jobId, save, finalize, publish };
}

function BodyPanel({ content, onSaved }: { content: Content; onSaved: (c: Content) => void }) {
  const [title, setTitle] = useState(content.title);
  const [text, setText] = useState(content.finalized_content ?? content.content);
  const actions = useBodyActions(content, { title, text }, onSaved);
  const { edit, save, finalize, publish } = actions;
  const frozen = content.status === "published";
  const textLocked = frozen || content.status === "finalized";
  const busy = save.busy || finalize.busy || publish.busy;
  return (
    <>
      <section class="panel" aria-labelledby="body-heading">
        <h2 id="body-heading">Text</h2>
        <p>
          Status: <StatusBadge status={content.status} /> · version {content.version_count} · updated{" "}
          {dateTime(content.updated_at)}
        </p>
        <Field label="Title">
          <input
            value={title}
            maxLength={300}
            readOnly={frozen}
            onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label="Body" hint={textLocked ? "The text is final." : "Edit the text, then save or finalize it."}>
          <textarea
            class="content-body"
            value={text}
            readOnly={textLocked}
            onFocus={edit.onFocus}
            onBlur={edit.onBlur}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
        <div class="actions">
          {!frozen ? (
            <button type="button" disabled={busy} onClick={() => save.run()}>
              Save
            </button>
          ) : null}
          {content.status === "generated" ? (
            <button type="button" class="primary" disabled={busy || !text.trim()} onClick={() => finalize.run()}>
              Finalize
            </button>
          ) : null}
          {content.status === "finalized" ? (
            <button type="button" class="primary" disabled={busy} onClick={() => publish.run()}>
              Publish
            </button>
          ) : null}
        </div>
        {busy ? <Busy label={finalize.busy ? "Finalizing" : publish.busy ? "Publishing" : "Saving"} /> : null}
        <ErrorNote error={save.error ?? finalize.error ?? publish.error} />
      </section>
      {actions.jobId ? <LearningJob jobId={actions.jobId} /> : null}
      <Score text={text} />
    </>
  );
}

function ContentEditor({ contentId, warnings }: { contentId: number; warnings: string[] }) {
  const { workspaceId } = useAccount();
  const loaded = useAsync(
    () => ok(api.GET("/api/v1/contents/{contentId}", { params: { path: { contentId } } })),
    [contentId],
  );
  const [content, setContent] = useState<Content>();
  useEffect(() => setContent(loaded.data), [loaded.data]);
  const [revision, setRevision] = useState(0);
  const saved = (c: Content) => {
    setContent(c);
    setRevision((n) => n + 1);
  };
  return (
    <Page title={content ? content.title || `Content #${contentId}` : "Editor"}>
      <ErrorNote error={loaded.error} />
      {loaded.loading && !content ? <Busy label="Reading the content" /> : null}
      <Warnings warnings={warnings} />
      {content ? (
        <div class="editor-sections">
          <BodyPanel key={content.content_id} content={content} onSaved={saved} />
          <Versions contentId={contentId} revision={revision} />
          <Conversions contentId={contentId} workspaceId={content.workspace_id ?? workspaceId ?? ""} />
        </div>
      ) : null}
    </Page>
  );
}
