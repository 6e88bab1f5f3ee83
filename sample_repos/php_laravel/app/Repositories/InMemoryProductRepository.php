<?php

namespace App\Repositories;

use App\Models\Product;

/**
 * Products kept in memory, for tests and demos.
 */
class InMemoryProductRepository implements ProductRepository
{
    /** @var array<int, Product> */
    private array $products = [];

    public function find(int $id): ?Product
    {
        return $this->products[$id] ?? null;
    }

    public function all(): array
    {
        return array_values($this->products);
    }

    public function add(Product $product): void
    {
        $product->save();
        $this->products[] = $product;
    }
}
