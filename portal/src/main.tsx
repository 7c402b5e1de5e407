// The portal's entry: its stylesheet (bundled to portal.css), the app, and the session restored from this tab.
import "./portal.css";
import { render } from "preact";
import { App } from "./app.tsx";
import { session } from "./session.ts";

render(<App />, document.getElementById("portal")!);
void session.restore();
