package com.example.shop.repository;

import com.example.shop.model.Order;
import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Repository;

/**
 * Orders by identifier, with a lookup by customer.
 */
@Repository
public class OrderRepository extends BaseRepository<Order> {

    @Override
    protected String idOf(Order entity) {
        return entity.getId();
    }

    /**
     * Orders placed by one customer.
     *
     * @param customerId the customer
     * @return the customer's orders
     */
    public List<Order> findByCustomer(String customerId) {
        List<Order> result = new ArrayList<>();
        for (Order order : findAll()) {
            if (customerId.equals(order.getCustomerId())) {
                result.add(order);
            }
        }
        return result;
    }
}
