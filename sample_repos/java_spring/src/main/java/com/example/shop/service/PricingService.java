package com.example.shop.service;

import com.example.shop.model.Order;

/**
 * Computes what a customer pays for an order.
 */
public interface PricingService {

    /**
     * Final price of an order, discounts included.
     *
     * @param order the order to price
     * @return the amount to pay, in cents
     */
    long quote(Order order);

    /**
     * Discount granted for an order total.
     *
     * @param totalCents the order total before discounts
     * @return the discount in percent
     */
    int discountPercent(long totalCents);
}
