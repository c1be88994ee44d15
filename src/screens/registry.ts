// Every screen of the console, in number-key order.
import type { ScreenModule } from './types.js';
import { homeScreen } from './HomeScreen.js';
import { templatesScreen } from './TemplatesScreen.js';
import { dataScreen } from './DataScreen.js';
import { dashboardScreen } from './DashboardScreen.js';
import { trainScreen } from './TrainScreen.js';
import { validateScreen } from './ValidateScreen.js';
import { convertScreen } from './ConvertScreen.js';

export const SCREENS: ScreenModule[] = [
  homeScreen,
  dataScreen,
  templatesScreen,
  convertScreen,
  validateScreen,
  trainScreen,
  dashboardScreen,
];

export function screenById(id: string): ScreenModule {
  return SCREENS.find((s) => s.id === id) ?? (SCREENS[0] as ScreenModule);
}
