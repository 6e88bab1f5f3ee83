package com.example.shop.service;

import com.example.shop.model.Order;
import com.example.shop.model.OrderLine;
import com.example.shop.model.Product;
import com.example.shop.repository.OrderRepository;
import com.example.shop.util.IdGenerator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.stereotype.Service;

/**
 * Places, prices and cancels orders.
 */
@Service
public class OrderService {

    private final OrderRepository orderRepository;
    private final ProductService productService;
    private final PricingService pricingService;

    /**
     * Constructor injection of all collaborators.
     *
     * @param orderRepository order storage
     * @param productService product lookups
     * @param pricingService the pricing policy
     */
    public OrderService(OrderRepository orderRepository, ProductService productService,
                        PricingService pricingService) {
        this.orderRepository = orderRepository;
        this.productService = productService;
        this.pricingService = pricingService;
    }

    /**
     * Creates an order from product quantities.
     *
     * @param customerId the customer placing the order
     * @param quantities units per product identifier
     * @return the stored order
     */
    public Order placeOrder(String customerId, Map<String, Integer> quantities) {
        var order = new Order(IdGenerator.next("ord"), customerId);
        for (Map.Entry<String, Integer> entry : quantities.entrySet()) {
            Product product = productService.getProduct(entry.getKey());
            order.addLine(new OrderLine(product.getId(), entry.getValue(), product.getPriceCents()));
        }
        return orderRepository.save(order);
    }

    /**
     * Amount the customer pays for an order.
     *
     * @param orderId the order
     * @return the price in cents, or empty for an unknown order
     */
    public Optional<Long> priceOf(String orderId) {
        Optional<Order> order = orderRepository.findById(orderId);
        return order.map(pricingService::quote);
    }

    /**
     * Orders of a customer.
     *
     * @param customerId the customer
     * @return the customer's orders
     */
    public List<Order> ordersOf(String customerId) {
        return orderRepository.findByCustomer(customerId);
    }

    /**
     * Cancels an order.
     *
     * @param orderId the order to cancel
     * @return true when the order existed and could be cancelled
     */
    public boolean cancel(String orderId) {
        Optional<Order> found = orderRepository.findById(orderId);
        if (found.isEmpty()) {
            return false;
        }
        Order order = found.get();
        boolean cancelled = order.cancel();
        if (cancelled) {
            orderRepository.save(order);
        }
        return cancelled;
    }
}
