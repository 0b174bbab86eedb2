// The settings' names, alone: the CLI checks a name given on the command line before it loads
// anything that reads or writes settings (domain/settings.ts and the database behind it).
export const SETTING_NAMES = ['public_api', 'public_access'] as const;
export type SettingName = (typeof SETTING_NAMES)[number];
