// The forced change after signing in with a welcome email's temporary password: nothing else works
// until it is done (the Admin API answers 403 PasswordChangeRequiredError meanwhile).
import { useState } from "preact/hooks";
import { Field } from "../components/field.tsx";
import { ErrorAlert } from "../components/feedback.tsx";
import { useAction } from "../components/use-resource.ts";
import { session } from "../session.ts";

const MIN_PASSWORD_LENGTH = 12;

export function ChangePassword() {
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [tooShort, setTooShort] = useState(false);
  const change = useAction(() => session.changePassword(currentPassword, newPassword));
  return (
    <main class="auth-page" id="contenido">
      <h1>Elegí tu contraseña</h1>
      <p>Ingresaste con una contraseña temporal. Para seguir, elegí una contraseña propia.</p>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const short = newPassword.length < MIN_PASSWORD_LENGTH;
          setTooShort(short);
          if (!short) void change.run();
        }}
      >
        <ErrorAlert error={change.error} />
        <Field
          label="Contraseña actual"
          required
          type="password"
          name="currentPassword"
          autocomplete="current-password"
          value={currentPassword}
          onValue={setCurrentPassword}
          error={change.error?.fieldErrors.currentPassword}
        />
        <Field
          label="Contraseña nueva"
          required
          type="password"
          name="newPassword"
          autocomplete="new-password"
          minLength={MIN_PASSWORD_LENGTH}
          hint={`Al menos ${MIN_PASSWORD_LENGTH} caracteres.`}
          value={newPassword}
          onValue={setNewPassword}
          error={tooShort ? `Tiene que tener al menos ${MIN_PASSWORD_LENGTH} caracteres.` : change.error?.fieldErrors.newPassword}
        />
        <button type="submit" disabled={change.busy}>
          Guardar la contraseña
        </button>
      </form>
      <button type="button" class="button-link" onClick={() => void session.signOut()}>
        Salir
      </button>
    </main>
  );
}
