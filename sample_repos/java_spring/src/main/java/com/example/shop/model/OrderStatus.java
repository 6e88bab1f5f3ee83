package com.example.shop.model;

/** Life cycle of an {@link Order}. */
public enum OrderStatus {
    /** Created, not yet paid. */
    NEW,
    /** Paid and waiting for shipment. */
    PAID,
    /** Cancelled by the customer or the shop. */
    CANCELLED;

    /**
     * Whether an order in this state may still be cancelled.
     *
     * @return true for orders that have not been cancelled yet
     */
    public boolean isCancellable() {
        return this != CANCELLED;
    }
}
