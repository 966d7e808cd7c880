import { native } from "./native";

/** dcl's version and the protocol level it speaks (what `dcl -v` prints). */
export function versions(): { dcl: string; protocol: string } {
  return native().versions();
}
