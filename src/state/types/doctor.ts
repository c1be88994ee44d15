// The doctor types that the stores hold; src/services/doctor builds them and re-exports them.

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  id: string;
  title: string;
  status: CheckStatus;
  /** Evidence, one line; never a secret value. */
  detail: string;
  /** What to do, when not ok. */
  fix?: string;
}

/** A check the doctor has started but not answered yet (the home screen shows it as pending). */
export interface PendingCheck {
  id: string;
  title: string;
}
