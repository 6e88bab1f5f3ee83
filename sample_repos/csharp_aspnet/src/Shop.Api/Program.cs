using Shop.Api.Endpoints;
using Shop.Core.Data;
using Shop.Core.Models;
using Shop.Core.Services;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddSingleton<IUserRepository, UserRepository>();
builder.Services.AddSingleton<IUserService, UserService>();
builder.Services.AddSingleton<IOrderService, OrderService>();
builder.Services.AddControllers();

var app = builder.Build();

// Liveness probe for the load balancer.
app.MapGet("/health", () => Results.Ok("ok"));

var api = app.MapGroup("/api").WithTags("shop");
api.MapGet("/products/{id:int}", ProductEndpoints.GetProduct);
api.MapGet("/products", ProductEndpoints.ListProducts);

var orders = api.MapGroup("/orders");
orders.MapPost("/", (OrderRequest request, IOrderService service) => service.Place(request));
orders.MapMethods("/{id}/cancel", new[] { "POST", "DELETE" }, ProductEndpoints.Cancel);

app.MapControllers();
app.Run();
