import { paginate } from '@utils/pagination';
import { clamp } from 'utils/pagination';

/** One page of report lines; the page size is kept between 1 and 100. */
export function reportPage(lines: string[], page: number, size: number) {
  return paginate(lines, page, clamp(size, 1, 100));
}
