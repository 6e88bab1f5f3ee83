package com.example.shop.service;

import com.example.shop.model.Order;
import com.example.shop.util.PriceUtils;
import org.springframework.stereotype.Service;

/**
 * Volume discounts: 5% from 100.00, 10% from 500.00.
 */
@Service
public class DefaultPricingService implements PricingService {

    private static final long TIER_ONE_CENTS = 10_000;
    private static final long TIER_TWO_CENTS = 50_000;

    /** {@inheritDoc} */
    @Override
    public long quote(Order order) {
        long total = order.total();
        return PriceUtils.applyDiscount(total, discountPercent(total));
    }

    /**
     * The quote rounded to whole nickels, for cash payments.
     *
     * @param order the order to price
     * @return the discounted total in cents, a multiple of 5
     */
    public long cashQuote(Order order) {
        long total = order.total();
        return PriceUtils.applyDiscount(total, discountPercent(total), 5);
    }

    /** {@inheritDoc} */
    @Override
    public int discountPercent(long totalCents) {
        if (totalCents >= TIER_TWO_CENTS) {
            return 10;
        }
        return totalCents >= TIER_ONE_CENTS ? 5 : 0;
    }
}
