/**
 * The web session, kept in this page's memory only: never in localStorage, sessionStorage, a cookie or a URL. With no
 * credential the browser sends by itself, no other site can make a request in the person's name (no CSRF to defend
 * against), and a script injected into another page of the origin finds nothing stored. The cost: a reload or a new
 * tab asks to sign in again (docs/dashboard.md).
 *
 * When the server refuses the token (401: it expired, or the session was signed out elsewhere), the page stays as it
 * is and the sign-in dialog opens over it (app.tsx): what was typed is kept, and the refused request goes again with
 * the new token (api/client.ts).
 */
import { createStore } from "./store.js";

/** The signed-in person, as POST /auth/login answers it. */
export interface SessionUser {
  id: number;
  account_id: number;
  email: string;
  role: "admin" | "member";
}

/** A web session: its token (memory only), its expiry and its user. */
export interface Session {
  token: string;
  expiresAt: string;
  user: SessionUser;
}

interface State {
  session: Session | null;
  /** True while a refused request waits for the person to sign in again. */
  expired: boolean;
}

const store = createStore<State>({ session: null, expired: false });
let waiting: { resolve(token: string): void; reject(error: Error): void }[] = [];

/** The token to send, or undefined when nobody is signed in. */
export function sessionToken(): string | undefined {
  return store.get().session?.token;
}

/** The session now (for code outside components). */
export function currentSession(): Session | null {
  return store.get().session;
}

/** Starts a session: the first sign-in, or the sign-in again that lets waiting requests go. */
export function startSession(session: Session): void {
  const previous = store.get().session;
  const sameUser = previous !== null && previous.user.id === session.user.id;
  store.update({ session, expired: false });
  const pending = waiting;
  waiting = [];
  // Requests refused for another person's session (or for none) must not be sent again as this one.
  for (const w of pending) sameUser ? w.resolve(session.token) : w.reject(new Error("signed in as someone else"));
}

/** Ends the session in this page (the server's end is POST /auth/logout, pages/sign-in.tsx). */
export function endSession(): void {
  store.update({ session: null, expired: false });
  const pending = waiting;
  waiting = [];
  for (const w of pending) w.reject(new Error("signed out"));
}

/** Marks the session expired and waits for the person to sign in again; resolves with the new token. */
export function reauthenticate(): Promise<string> {
  if (!store.get().expired) store.update({ expired: true });
  return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
}

/** The session state, re-rendering the component when it changes. */
export const useSession = store.use;
