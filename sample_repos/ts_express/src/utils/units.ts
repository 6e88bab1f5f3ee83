/** Unit conversions grouped in a namespace. */
export namespace Units {
  /** Whole cents of an amount in euros. */
  export function toCents(euros: number): number {
    return round(euros * 100);
  }

  function round(value: number): number {
    return Math.round(value);
  }

  /** Weights, nested inside Units. */
  export namespace Weight {
    export function gramsToKilos(grams: number): number {
      return Units.toCents(grams / 1000) / 100;
    }
  }
}
