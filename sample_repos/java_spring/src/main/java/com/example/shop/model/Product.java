package com.example.shop.model;

import java.util.Objects;

/**
 * A product that can be ordered from the shop catalogue.
 *
 * <p>Prices are kept in cents to avoid floating point rounding.
 */
public class Product {

    /** Unique product identifier, e.g. {@code prd-42}. */
    private final String id;

    /** Human readable product name. */
    private final String name;

    /** Catalogue category used for filtering. */
    private final String category;

    /** Unit price in cents. */
    private long priceCents;

    /**
     * Creates a product.
     *
     * @param id unique identifier
     * @param name display name
     * @param category catalogue category
     * @param priceCents unit price in cents
     */
    public Product(String id, String name, String category, long priceCents) {
        this.id = Objects.requireNonNull(id, "id");
        this.name = name;
        this.category = category;
        this.priceCents = priceCents;
    }

    /**
     * Creates a product in the {@code general} category.
     *
     * @param id unique identifier
     * @param name display name
     * @param priceCents unit price in cents
     */
    public Product(String id, String name, long priceCents) {
        this(id, name, "general", priceCents);
    }

    /** @return the product identifier */
    public String getId() {
        return id;
    }

    /** @return the display name */
    public String getName() {
        return name;
    }

    /** @return the catalogue category */
    public String getCategory() {
        return category;
    }

    /** @return the unit price in cents */
    public long getPriceCents() {
        return priceCents;
    }

    /**
     * Changes the unit price.
     *
     * @param priceCents new price in cents, never negative
     */
    public void changePrice(long priceCents) {
        if (priceCents < 0) {
            throw new IllegalArgumentException("price must not be negative");
        }
        this.priceCents = priceCents;
    }
}
