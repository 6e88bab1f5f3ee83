<?php

namespace App\Repositories;

use App\Models\Product;

/**
 * Where products are kept.
 */
interface ProductRepository
{
    public function find(int $id): ?Product;

    /** @return Product[] */
    public function all(): array;

    public function add(Product $product): void;
}
