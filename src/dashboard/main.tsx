/** The dashboard's entry: renders the app into the page's one element. */
import { render } from "preact";
import { serverBase } from "./api/client.js";
import { App } from "./app.js";
import { watchSandbox } from "./sandbox.js";

const root = document.getElementById("app");
watchSandbox(serverBase());
if (root) render(<App />, root);
