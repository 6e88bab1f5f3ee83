package com.example.shop.repository;

import com.example.shop.model.Product;
import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Repository;

/**
 * Products by identifier, with a category filter.
 */
@Repository
public class ProductRepository extends BaseRepository<Product> {

    @Override
    protected String idOf(Product entity) {
        return entity.getId();
    }

    /**
     * Stores a product after checking its price.
     *
     * @param product the product to store
     * @return the stored product
     */
    @Override
    public Product save(Product product) {
        if (product.getPriceCents() < 0) {
            throw new IllegalArgumentException("negative price");
        }
        return super.save(product);
    }

    /**
     * All products of one category.
     *
     * @param category the category name, case sensitive
     * @return matching products in no particular order
     */
    public List<Product> findByCategory(String category) {
        List<Product> result = new ArrayList<>();
        for (Product product : findAll()) {
            if (category.equals(product.getCategory())) {
                result.add(product);
            }
        }
        return result;
    }
}
