import { paginate } from '@utils/pagination';
import { clamp } from 'utils/pagination';
import { Units } from './utils/units';

/** One page of report lines; the page size is kept between 1 and 100. */
export function reportPage(lines: string[], page: number, size: number) {
  return paginate(lines, page, clamp(size, 1, 100));
}

/** Report formatters grouped in one object literal. */
export const reportFormat = {
  /** A title in capitals. */
  header(title: string): string {
    return title.toUpperCase();
  },
  line: (text: string): string => reportFormat.header(text) + '.',
};

/** The title line of a report. */
export function reportTitle(name: string): string {
  return reportFormat.line(name);
}

/** A price line of a report: euros in cents, weight in kilos. */
export function priceLine(euros: number, grams: number): string {
  return `${Units.toCents(euros)} ${Units.Weight.gramsToKilos(grams)}`;
}
