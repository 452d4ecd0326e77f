/**
 * Users: who signs in with a web session, and a form to create one with a role and, if given, a password. A password
 * the server generates is answered once, so it is shown once, with a copy button and a warning, like a new API key.
 */
import { useRef, useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { currentSession } from "../../session.js";
import { CopyButton } from "../../ui/copy-button.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { date } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { TableWrap } from "../../ui/table-wrap.js";
import { useAction } from "../../ui/use-async.js";
import { usePaged } from "../../ui/use-paged.js";

type User = components["schemas"]["User"];
type Created = components["schemas"]["UserCreated"];

/** The generated password, shown this once: the server keeps only its hash. */
function NewPassword({ user, password, onDone }: { user: Created; password: string; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  return (
    <section class="notice" aria-label="The new user's password">
      <p>
        <strong>Copy this password now: it is shown only once.</strong> Hand it to {user.email} by a safe way; once you
        leave, nobody can see it again.
      </p>
      <div class="secret">
        <label class="visually-hidden" for="new-password">
          Password of {user.email}
        </label>
        <input id="new-password" ref={field} readOnly value={password} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={password} label="Copy the password" field={() => field.current} />
      </div>
      <div class="actions">
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </section>
  );
}

function UsersTable({ users }: { users: User[] }) {
  return (
    <TableWrap label="Users">
      <table>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Account</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.id} data-user={u.id}>
              <th scope="row">{u.email}</th>
              <td>#{u.account_id}</td>
              <td>
                <span class={u.role === "admin" ? "badge ok" : "badge"}>{u.role}</span>
              </td>
              <td>{date(u.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

interface NewUser {
  accountId: string;
  email: string;
  role: "admin" | "member";
  password: string;
}

function UserFields({ form, set }: { form: NewUser; set: (change: Partial<NewUser>) => void }) {
  return (
    <div class="inline-form">
      <Field label="Account id">
        <input
          type="number"
          min={1}
          required
          value={form.accountId}
          onInput={(e) => set({ accountId: e.currentTarget.value })}
        />
      </Field>
      <Field label="Email">
        <input type="email" required value={form.email} onInput={(e) => set({ email: e.currentTarget.value })} />
      </Field>
      <Field label="Role">
        <select value={form.role} onChange={(e) => set({ role: e.currentTarget.value as NewUser["role"] })}>
          <option value="member">member</option>
          <option value="admin">admin (may use this page)</option>
        </select>
      </Field>
      <Field label="Password (optional)" hint="8 to 1,024 characters; left empty, one is generated and shown once.">
        <input
          type="password"
          autoComplete="new-password"
          minLength={8}
          maxLength={1024}
          value={form.password}
          onInput={(e) => set({ password: e.currentTarget.value })}
        />
      </Field>
    </div>
  );
}

function CreateUser({ onCreated }: { onCreated: (user: Created) => void }) {
  const blank = (): NewUser => ({
    accountId: String(currentSession()?.user.account_id ?? 1),
    email: "",
    role: "member",
    password: "",
  });
  const [form, setForm] = useState<NewUser>(blank);
  const create = useAction(() =>
    ok(
      api.POST("/api/v1/admin/users", {
        body: {
          account_id: Number(form.accountId),
          email: form.email,
          role: form.role,
          ...(form.password ? { password: form.password } : {}),
        },
      }),
    ),
  );
  return (
    <form
      class="panel"
      onSubmit={async (event) => {
        event.preventDefault();
        const created = await create.run();
        if (!created) return;
        setForm(blank());
        onCreated(created);
      }}
    >
      <h3>New user</h3>
      <UserFields form={form} set={(change) => setForm((f) => ({ ...f, ...change }))} />
      <button type="submit" class="primary" disabled={create.busy}>
        Create the user
      </button>
      {create.busy ? <Busy label="Creating the user…" /> : null}
      <ErrorNote error={create.error} />
    </form>
  );
}

/** The users section: every user who signs in, and the form that creates one (its generated password shown once). */
export function UsersSection() {
  const users = usePaged(
    (cursor) => ok(api.GET("/api/v1/admin/users", { params: { query: { cursor, limit: 100 } } })),
    [],
  );
  const [created, setCreated] = useState<Created | null>(null);
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {created?.password ? (
        <NewPassword user={created} password={created.password} onDone={() => setCreated(null)} />
      ) : null}
      <p role="status" class="success">
        {created && !created.password ? `${created.email} can now sign in with the password you gave.` : ""}
      </p>
      <ErrorNote error={users.error} />
      {users.loading && users.items.length === 0 ? <Busy label="Reading the users…" /> : null}
      <UsersTable users={users.items} />
      {users.hasMore ? (
        <button type="button" class="more" onClick={users.more} disabled={users.loadingMore}>
          More users
        </button>
      ) : null}
      <CreateUser
        onCreated={(user) => {
          setCreated(user);
          users.reload();
        }}
      />
    </section>
  );
}
