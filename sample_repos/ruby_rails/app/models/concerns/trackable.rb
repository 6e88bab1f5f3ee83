# Remembers when a record last changed.
module Trackable
  def touch
    @updated_at = Time.now
  end
end
