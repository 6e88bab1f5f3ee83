<?php

use App\Http\Controllers\OrderController;
use App\Http\Controllers\ProductController;
use Illuminate\Support\Facades\Route;

Route::get('/products', [ProductController::class, 'index']);
Route::post('/products', [ProductController::class, 'store']);
Route::get('/products/{id}', [ProductController::class, 'show'])->whereNumber('id');

Route::prefix('v1')->middleware('auth')->group(function () {
    Route::resource('orders', OrderController::class)->except(['edit']);
    Route::group(['prefix' => 'exports'], function () {
        Route::get('/orders', [OrderController::class, 'export']);
    });
});
