package com.example.shop.util;

import java.util.Locale;

/**
 * Static helpers for money amounts kept in cents.
 */
public final class PriceUtils {

    private PriceUtils() {
    }

    /**
     * Formats cents as a decimal amount, e.g. {@code 1999 -> "19.99"}.
     *
     * @param cents the amount in cents
     * @return the formatted amount
     */
    public static String formatCents(long cents) {
        return String.format(Locale.ROOT, "%d.%02d", cents / 100, Math.abs(cents % 100));
    }

    /**
     * Removes a percentage from an amount.
     *
     * @param cents the amount in cents
     * @param percent the discount, 0 to 100
     * @return the discounted amount, rounded to whole cents
     */
    public static long applyDiscount(long cents, int percent) {
        return roundCents(cents * (100 - percent) / 100.0);
    }

    /**
     * Removes a percentage from an amount and rounds to a multiple of {@code step}.
     *
     * @param cents the amount in cents
     * @param percent the discount, 0 to 100
     * @param step the rounding step, e.g. 5
     * @return the discounted amount, rounded to the step
     */
    public static long applyDiscount(long cents, int percent, int step) {
        long discounted = applyDiscount(cents, percent);
        return roundCents(discounted, step);
    }

    /**
     * Rounds a fractional amount of cents half up.
     *
     * @param cents fractional cents
     * @return whole cents
     */
    public static long roundCents(double cents) {
        return Math.round(cents);
    }

    /**
     * Rounds an amount of cents to a multiple of {@code step}.
     *
     * @param cents whole cents
     * @param step the rounding step, e.g. 5
     * @return the rounded amount
     */
    public static long roundCents(long cents, int step) {
        return (cents + step / 2) / step * step;
    }
}
