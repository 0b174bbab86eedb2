// The settings' names, alone: the CLI checks a name given on the command line before it loads
// anything that reads or writes settings (domain/settings.ts and the database behind it).
/** The switches (on/off) that decide access; every daemon reads them for the next request. */
export const SETTING_NAMES = ['public_api', 'public_access'] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

/** The token lifetime policy: a number of days, or off. Read by the token commands and doctor. */
export const TOKEN_MAX_DAYS = 'token_max_days';

/** Every name `settings set` takes. */
export const ALL_SETTING_NAMES = [...SETTING_NAMES, TOKEN_MAX_DAYS] as const;

/** The largest token_max_days: beyond it the latest expiry date (2038-01-18) is the limit anyway. */
export const TOKEN_MAX_DAYS_LIMIT = 36_500;
