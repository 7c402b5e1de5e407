// Sign-in (email and password), and "forgot password", which never says whether the account exists.
import { useState } from "preact/hooks";
import { Field } from "../components/field.tsx";
import { ErrorAlert, Notice } from "../components/feedback.tsx";
import { useAction } from "../components/use-resource.ts";
import { session } from "../session.ts";

export function SignIn({ notice }: { notice?: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [forgot, setForgot] = useState(false);
  const [resetSent, setResetSent] = useState(false);
  const signIn = useAction(() => session.signIn(email.trim(), password));
  const reset = useAction(async () => {
    await session.requestPasswordReset(email.trim());
    setResetSent(true);
  });

  if (forgot) {
    return (
      <main class="auth-page" id="contenido">
        <h1>Recuperar la contraseña</h1>
        {resetSent ? (
          <Notice>Si hay una cuenta con ese email, te enviamos un enlace para elegir una contraseña nueva. Vence en una hora.</Notice>
        ) : (
          <form
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              void reset.run();
            }}
          >
            <ErrorAlert error={reset.error} />
            <Field
              label="Email"
              required
              type="email"
              name="email"
              autocomplete="username"
              value={email}
              onValue={setEmail}
              error={reset.error?.fieldErrors.email}
            />
            <button type="submit" disabled={reset.busy}>
              Enviar el enlace
            </button>
          </form>
        )}
        <button
          type="button"
          class="button-link"
          onClick={() => {
            setForgot(false);
            setResetSent(false);
          }}
        >
          Volver a ingresar
        </button>
      </main>
    );
  }

  return (
    <main class="auth-page" id="contenido">
      <h1>Ingresá al portal de Cobro</h1>
      {notice && <Notice>{notice}</Notice>}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void signIn.run();
        }}
      >
        <ErrorAlert error={signIn.error} />
        <Field
          label="Email"
          required
          type="email"
          name="email"
          autocomplete="username"
          value={email}
          onValue={setEmail}
          error={signIn.error?.fieldErrors.email}
        />
        <Field
          label="Contraseña"
          required
          type="password"
          name="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
          error={signIn.error?.fieldErrors.password}
        />
        <button type="submit" disabled={signIn.busy}>
          Ingresar
        </button>
      </form>
      <button type="button" class="button-link" onClick={() => setForgot(true)}>
        Olvidé mi contraseña
      </button>
    </main>
  );
}
