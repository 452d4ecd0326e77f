/** The two ways to add a reference material: pasting its text (with its format), or uploading a file. */
import { useState } from "preact/hooks";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { Busy } from "../../ui/page.js";
import { useAction } from "../../ui/use-async.js";
import { FORMATS, pasteReference, type ReferenceFormat, UPLOAD_ACCEPT, uploadReference } from "./data.js";

/** The form that adds a reference from pasted text, with its title and format; `onAdded` once the server has it. */
export function PasteForm({ workspaceId, onAdded }: { workspaceId: string | undefined; onAdded: () => void }) {
  const [title, setTitle] = useState("");
  const [format, setFormat] = useState<ReferenceFormat>("markdown");
  const [content, setContent] = useState("");
  const add = useAction(() => pasteReference(workspaceId, { title, format, content }));
  return (
    <form
      class="panel"
      aria-labelledby="lib-paste-title"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!(await add.run())) return;
        setTitle("");
        setContent("");
        onAdded();
      }}
    >
      <h3 id="lib-paste-title">Paste a reference</h3>
      <Field label="Title" hint="Left empty, the text's first line.">
        <input value={title} maxLength={300} onInput={(e) => setTitle(e.currentTarget.value)} />
      </Field>
      <Field label="Format">
        <select value={format} onChange={(e) => setFormat(e.currentTarget.value as ReferenceFormat)}>
          {FORMATS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Content">
        <textarea required value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      </Field>
      <ErrorNote error={add.error} />
      {add.busy ? <Busy label="Adding the reference…" /> : null}
      <button type="submit" class="primary" disabled={add.busy}>
        Add the reference
      </button>
    </form>
  );
}

/** The form that uploads a file as a reference, showing its progress; `onAdded` once the server has it. */
export function UploadForm({ workspaceId, onAdded }: { workspaceId: string | undefined; onAdded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState("");
  // A new key empties the file field after an upload (a file input's value cannot be set).
  const [round, setRound] = useState(0);
  const upload = useAction((f: File) => uploadReference(workspaceId, f, title));
  return (
    <form
      class="panel"
      aria-labelledby="lib-upload-title"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!file || !(await upload.run(file))) return;
        setFile(null);
        setTitle("");
        setRound((n) => n + 1);
        onAdded();
      }}
    >
      <h3 id="lib-upload-title">Upload a file</h3>
      <Field label="File" hint="A UTF-8 .txt, .md, .markdown, .html or .htm file, up to 5 MiB.">
        <input
          key={round}
          type="file"
          required
          accept={UPLOAD_ACCEPT}
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
        />
      </Field>
      <Field label="Title of the upload" hint="Left empty, the file's name.">
        <input value={title} maxLength={300} onInput={(e) => setTitle(e.currentTarget.value)} />
      </Field>
      <ErrorNote error={upload.error} />
      {upload.busy ? <Busy label={`Uploading ${file?.name ?? "the file"}…`} /> : null}
      <button type="submit" class="primary" disabled={upload.busy}>
        Upload
      </button>
    </form>
  );
}
