using Microsoft.AspNetCore.Mvc;
using Shop.Core.Models;
using Shop.Core.Services;

namespace Shop.Api.Controllers;

[ApiController]
[Route("api/v2/orders")]
public class OrdersController : ControllerBase
{
    private readonly IOrderService _orders;

    public OrdersController(IOrderService orders) => _orders = orders;

    [HttpGet("{id}/total")]
    public decimal Total(int id, [FromQuery] int quantity)
    {
        var request = new OrderRequest(id, quantity);
        return _orders.Quote(request);
    }

    [Route("{id}/status")]
    [AcceptVerbs("GET", "HEAD")]
    public OrderStatus Status(int id) => _orders.StatusOf(id);
}
