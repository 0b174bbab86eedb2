// Options that many commands share, as commander hands them to an action.

export interface JsonFlag {
  json?: boolean;
}

export interface AsFlag {
  as?: string;
}
