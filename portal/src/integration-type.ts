// The signed-in integration's type (`GET /my-integration/me`), which decides part of the menu: tenants
// exist only for `multitenant` integrations. Read once per integration and again after the profile
// changes it.
import { useEffect, useState } from "preact/hooks";
import type { IntegrationClientType } from "@cobro/sdk/admin";
import { adminApi } from "./api.ts";

const CHANGED = "portal:integration-changed";
let known: { integrationClientId: string; type: Promise<IntegrationClientType | undefined> } | undefined;

function typeOf(integrationClientId: string): Promise<IntegrationClientType | undefined> {
  if (known?.integrationClientId !== integrationClientId) {
    // Unknown when it cannot be read: the menu then leaves out what depends on it.
    known = {
      integrationClientId,
      type: adminApi.myIntegration.getMyIntegration().then(
        (detail) => detail.type,
        () => undefined,
      ),
    };
  }
  return known.type;
}

/** The profile saved a new type: read it again. */
export function integrationChanged(): void {
  known = undefined;
  window.dispatchEvent(new Event(CHANGED));
}

/** The type of the integration `integrationClientId` (none for a platform admin); `undefined` until read. */
export function useIntegrationType(integrationClientId: string | null): IntegrationClientType | undefined {
  const [type, setType] = useState<IntegrationClientType | undefined>(undefined);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const update = () => setGeneration((value) => value + 1);
    window.addEventListener(CHANGED, update);
    return () => window.removeEventListener(CHANGED, update);
  }, []);
  useEffect(() => {
    let current = true;
    if (integrationClientId === null) setType(undefined);
    else void typeOf(integrationClientId).then((read) => current && setType(read));
    return () => {
      current = false;
    };
  }, [integrationClientId, generation]);
  return type;
}
