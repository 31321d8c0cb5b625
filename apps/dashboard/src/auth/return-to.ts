// The deep link a signed-out visitor asked for, carried through sign-in and the organization picker
// in the router's location state, so that they land where they meant to go.
import type { Location } from 'react-router';

export interface ReturnState {
  from: string;
}

/** The state that sends the user back to `location` once signed in. */
export function returnState(location: Location): ReturnState {
  return { from: location.pathname + location.search + location.hash };
}

/** Where to go after sign-in: the page asked for, or the overview. Only paths of this app. */
export function returnPath(location: Location): string {
  const from = (location.state as Partial<ReturnState> | null)?.from;
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') ? from : '/';
}
