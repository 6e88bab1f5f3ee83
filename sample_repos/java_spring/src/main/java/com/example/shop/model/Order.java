package com.example.shop.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A customer order made of {@link OrderLine}s.
 */
public class Order {

    private final String id;
    private final String customerId;
    private final List<OrderLine> lines = new ArrayList<>();
    private OrderStatus status = OrderStatus.NEW;

    /**
     * Creates an empty order.
     *
     * @param id order identifier
     * @param customerId the customer who placed the order
     */
    public Order(String id, String customerId) {
        this.id = id;
        this.customerId = customerId;
    }

    /** @return the order identifier */
    public String getId() {
        return id;
    }

    /** @return the customer who placed the order */
    public String getCustomerId() {
        return customerId;
    }

    /** @return the current status */
    public OrderStatus getStatus() {
        return status;
    }

    /** @return an unmodifiable view of the order lines */
    public List<OrderLine> getLines() {
        return Collections.unmodifiableList(lines);
    }

    /**
     * Appends a line to the order.
     *
     * @param line the line to add
     */
    public void addLine(OrderLine line) {
        lines.add(line);
    }

    /**
     * Sum of all line subtotals.
     *
     * @return the order total in cents, before discounts
     */
    public long total() {
        long sum = 0;
        for (OrderLine line : lines) {
            sum += line.subtotal();
        }
        return sum;
    }

    /**
     * Cancels the order if its status allows it.
     *
     * @return true when the order was cancelled by this call
     */
    public boolean cancel() {
        if (!status.isCancellable()) {
            return false;
        }
        status = OrderStatus.CANCELLED;
        return true;
    }
}
