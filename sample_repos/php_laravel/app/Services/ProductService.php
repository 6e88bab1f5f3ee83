<?php

namespace App\Services;

use App\Models\Product;
use App\Repositories\ProductRepository as Products;

/**
 * Catalogue operations over the product repository.
 */
class ProductService
{
    public function __construct(private Products $products)
    {
    }

    public function catalogue(): array
    {
        $lines = [];
        foreach ($this->products->all() as $product) {
            $lines[] = $product->price()->format();
        }
        return $lines;
    }

    public function find(int $id): ?Product
    {
        return $this->products->find($id);
    }

    public function register(string $name, int $price): Product
    {
        $product = Product::create(['name' => $name, 'price' => $price]);
        $this->products->add($product);
        return $product;
    }
}
