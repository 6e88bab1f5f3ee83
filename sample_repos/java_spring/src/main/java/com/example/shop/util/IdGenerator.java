package com.example.shop.util;

import java.util.UUID;

/**
 * Generates prefixed identifiers such as {@code ord-1f3a...}.
 */
public final class IdGenerator {

    private IdGenerator() {
    }

    /**
     * A new random identifier.
     *
     * @param prefix short type prefix, e.g. {@code "ord"}
     * @return the identifier
     */
    public static String next(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
