# Base of every controller: JSON rendering.
class ApplicationController
  def render_json(data, status: 200)
    { status: status, body: data }
  end
end
