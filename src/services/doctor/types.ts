// The checks that `doctor` runs and the home screen shows; the types live with the stores (src/state/types).
export type { DoctorCheck, CheckStatus, PendingCheck } from '../../state/types/doctor.js';
