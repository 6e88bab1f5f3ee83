package com.example.shop.model;

/**
 * One line of an order: a product and a quantity at a fixed unit price.
 *
 * @param productId the ordered product
 * @param quantity number of units, at least one
 * @param unitPriceCents price of one unit when the order was placed
 */
public record OrderLine(String productId, int quantity, long unitPriceCents) {

    /**
     * Price of the whole line.
     *
     * @return quantity times unit price, in cents
     */
    public long subtotal() {
        return quantity * unitPriceCents;
    }
}
