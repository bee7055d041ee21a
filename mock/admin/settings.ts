/**
 * The mock's run-time settings, like its faults scoped by partner: a change made with a partner's key applies to
 * that partner's requests only, so one developer switching response checks off does not switch them off for the
 * team; a change made without a key applies to every partner and replaces the partners' own.
 */
export interface Settings {
  validateResponses: boolean;
}

export interface SettingsRegistry {
  /** The settings in force for the partner's requests (or, without one, the mock's own). */
  of(partnerId?: string): Settings;
  /** With a partner, that partner's settings; without, everyone's. Returns the settings now in force for it. */
  set(partnerId: string | undefined, settings: Settings): Settings;
  /** Hears each switch, with the partner it concerns (none: every partner's), until the function returned is called. */
  onChange(listener: (partnerId: string | undefined) => void): () => void;
}

export function createSettingsRegistry(initial: Settings): SettingsRegistry {
  let everyone: Settings = { ...initial };
  const perPartner = new Map<string, Settings>();
  const listeners = new Set<(partnerId: string | undefined) => void>();
  return {
    of: (partnerId) => ({ ...((partnerId === undefined ? undefined : perPartner.get(partnerId)) ?? everyone) }),
    set(partnerId, settings) {
      if (partnerId === undefined) {
        everyone = { ...settings };
        perPartner.clear();
      } else {
        perPartner.set(partnerId, { ...settings });
      }
      for (const listener of listeners) listener(partnerId);
      return this.of(partnerId);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
