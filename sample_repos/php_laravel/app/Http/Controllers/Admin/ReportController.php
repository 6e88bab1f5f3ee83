<?php

namespace App\Http\Controllers\Admin;

use App\Http\Controllers\Controller;
use App\Services\ProductService;
use Symfony\Component\Routing\Attribute\Route;

/**
 * Reports for the back office, routed by attributes.
 */
#[Route('/admin/reports')]
class ReportController extends Controller
{
    public function __construct(private ProductService $products)
    {
    }

    #[Route('/catalogue', methods: ['GET'])]
    public function catalogue(): array
    {
        return $this->json($this->products->catalogue());
    }

    #[Route('/rebuild', name: 'rebuild', methods: ['POST', 'PUT'])]
    public function rebuild(): array
    {
        return $this->json(\format_cents(0));
    }
}
